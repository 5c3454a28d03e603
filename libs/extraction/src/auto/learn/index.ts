export { learnRecipe, type LearnRecipeInput, type LearnReport } from './learn-recipe';
